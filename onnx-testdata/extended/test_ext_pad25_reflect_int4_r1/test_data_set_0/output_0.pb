
ByJPX