
BxJ€Ä