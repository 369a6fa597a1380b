"""Ids are text: the public face of the id coding helpers (:mod:`rankmeter.data._ids`).

Other packages import these names from here, never from the private module.
"""

from ._ids import (
    as_string_array,
    as_string_column,
    bools,
    encode,
    encode_grouped,
    encode_unsorted,
    extend_vocab,
    ints,
    recode,
    string_buffers,
    string_signature,
    take_rows,
    to_numpy,
    union_vocab,
)

__all__ = [
    "ints", "to_numpy", "as_string_array", "encode", "encode_unsorted", "union_vocab", "recode", "extend_vocab",
    "string_signature", "as_string_column", "bools", "encode_grouped", "take_rows", "string_buffers",
]
