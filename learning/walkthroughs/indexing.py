"""explain indexing: program offsets, cdiv and tail masks for a 1-D grid."""

from __future__ import annotations

from learning.checking import reference as ref

from .script import Script

N, BLOCK = 10, 4


def build() -> Script:
    s = Script("indexing: which elements does each program own?")
    s.say(f"n = {N} elements, BLOCK = {BLOCK} lanes per program.")
    programs = ref.cdiv(N, BLOCK)
    s.ask(f"programs = cdiv({N}, {BLOCK}) = ({N} + {BLOCK} - 1) // {BLOCK}", programs)
    s.ask(f"what would {N} // {BLOCK} launch, and which elements would nobody touch?",
          f"{N // BLOCK} programs; elements {N // BLOCK * BLOCK}..{N - 1} never computed")
    for pid in range(programs):
        offsets = [pid * BLOCK + lane for lane in range(BLOCK)]
        s.ask(f"program {pid}: offsets = {pid}*{BLOCK} + {list(range(BLOCK))}", offsets)
        s.ask(f"program {pid}: mask = offsets < {N}", [o < N for o in offsets])
    s.say(f"\nProgram {programs - 1}'s last {programs * BLOCK - N} lanes are masked: their loads return the "
          "'other' value and their stores do nothing.")
    s.say("Without the mask they would read and write past the end of the buffer: on a GPU that corrupts a")
    s.say("neighbour silently; the checker's guard zones report the program, lane and offset instead.")
    s.say("\nNext: python -m learning.check offsets")
    return s
