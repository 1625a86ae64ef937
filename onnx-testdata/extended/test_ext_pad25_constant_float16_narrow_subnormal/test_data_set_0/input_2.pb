
BvalueJ€