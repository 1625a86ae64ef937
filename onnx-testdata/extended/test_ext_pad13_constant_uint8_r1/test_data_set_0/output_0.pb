
ByJ
		›+Z£‘			