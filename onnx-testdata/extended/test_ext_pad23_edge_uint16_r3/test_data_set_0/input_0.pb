BxJ0¬C“èXJi™RV,™
žßø¨$DtºäÎêG°Ü4cZ¤"UK¾§Ž®ÄLzÅN9