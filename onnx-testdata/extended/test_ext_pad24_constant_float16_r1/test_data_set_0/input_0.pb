
BxJ@E€?@D