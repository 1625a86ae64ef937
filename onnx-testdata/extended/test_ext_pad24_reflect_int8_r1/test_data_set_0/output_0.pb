ByJ
H
ú