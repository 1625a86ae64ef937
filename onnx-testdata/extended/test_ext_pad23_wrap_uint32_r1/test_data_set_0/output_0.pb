
ByJ(T°ŠgÍ=t·œo»îÙ†˜úC­eT°ŠgÍ=t·œo»îÙ†˜úC­e