
BvalueJ*~