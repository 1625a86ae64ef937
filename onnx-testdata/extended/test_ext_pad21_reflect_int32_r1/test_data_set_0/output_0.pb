
ByJ(AA5g+iгMФТэЉ+iгMAA5gvВ	ЯvВAA5g+iгM