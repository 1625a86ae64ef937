
ByJ
ÑOÒAPÑOÒAP