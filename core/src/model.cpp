// placeholder: the assembled model is being written
