ByJaL
