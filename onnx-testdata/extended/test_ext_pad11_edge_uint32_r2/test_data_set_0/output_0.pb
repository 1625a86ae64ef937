ByJ¨™iNB™iNB™iNBcªE¼§ÂkÅkÅk™iNB™iNB™iNBcªE¼§ÂkÅkÅk5T5T5TqÚD¸ vV.¼}Ð¼}Ð`Yl`Yl`Yl¥ã1$­ÿ
»I‰—»I‰—`Yl`Yl`Yl¥ã1$­ÿ
»I‰—»I‰—`Yl`Yl`Yl¥ã1$­ÿ
»I‰—»I‰—