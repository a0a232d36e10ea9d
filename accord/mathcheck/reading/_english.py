"""Short English words, so that prose is never read as a product of one-letter names.

Letters-only words of up to four letters that are not listed here (``ab``, ``xyz``, ``kab``) are
read as products of variables; these are not.
"""

COMMON_WORDS = frozenset(
    """
a an the is are was be been am do does did we us our you i he she it its they them their this that
these those so to of in on at by or and as if then than for from with into onto not no yes all any
each some one two six ten can has have had get got let may must will shall would could should also
only just both such same way ways set sets sum sums its say see use used try now thus here there
when what why how who which where while true false case cases odd even more most less each per
mod too very much many few new old own out off up down over let's lets gives give note since hence
given get gets make made take form find found show need needs must step steps hold holds rule
same term terms part what else next last first end ends done good know kind once does type total
root roots base line side sides zero four five nine one's area half time times plus minus over
into upon onto via like unit units days day year week hour sort item list pair pairs mean must
order prime primes both sign open well left right top bottom seat seats ball balls box boxes cell
but yet nor want non real fact hand back look work help sure ask fix due keep were care pass
easy able seen put rest none long free main vice law add move draw swap size tile row rows fill rook
face cube lot lots red blue loss bell gaps toy toys dog dogs boys girl hint map maps park ties tied
rid ones car cars his edge sit sits bar bars bit tens path tree dots bins task goes go pell
""".split()
)
