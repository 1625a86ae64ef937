
ByJ
SÓÔÓS><>SÓ