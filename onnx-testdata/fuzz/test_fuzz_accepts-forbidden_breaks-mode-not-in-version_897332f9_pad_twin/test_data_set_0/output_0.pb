
ByJ`Å