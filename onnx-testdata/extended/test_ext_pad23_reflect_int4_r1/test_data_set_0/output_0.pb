
ByJocœ»o