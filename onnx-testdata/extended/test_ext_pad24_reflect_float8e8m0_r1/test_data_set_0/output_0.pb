
ByJ
~„y„~x|x~„