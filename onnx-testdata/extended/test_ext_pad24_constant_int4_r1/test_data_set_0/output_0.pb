
ByJwš~w