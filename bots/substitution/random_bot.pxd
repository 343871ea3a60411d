# Augments random_bot.py when it is compiled: RandomBot becomes an extension type.

cdef class RandomBot:
    cdef object compiled
