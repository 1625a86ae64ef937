
ByJ
WWWo\Iττττ