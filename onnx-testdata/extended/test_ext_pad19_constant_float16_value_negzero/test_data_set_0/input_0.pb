
BxJ€D EÀ@