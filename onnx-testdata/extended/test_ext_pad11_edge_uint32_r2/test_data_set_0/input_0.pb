BxJ0™iNBcªE¼§ÂkÅk5TqÚD¸ vV.¼}Ð`Yl¥ã1$­ÿ
»I‰—