
ByJ
ÆP¸PÆTÔTÆP