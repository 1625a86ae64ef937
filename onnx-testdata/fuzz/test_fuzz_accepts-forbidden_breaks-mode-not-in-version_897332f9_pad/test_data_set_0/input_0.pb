
BxJ`Å