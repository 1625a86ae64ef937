
ByJ€Ä