
ByJ
5g§g5Œ´Œ5g