
BvalueJÿû