BxJH
úM