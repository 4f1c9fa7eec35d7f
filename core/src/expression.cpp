// placeholder: the expression engine is being written
