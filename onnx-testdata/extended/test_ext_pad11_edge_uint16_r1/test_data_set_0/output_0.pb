
ByJýOýOýO+öª˜<îI±I±I±I±