"""Reads the tensor files ngraphbench writes for its helper scripts (the calibration batches of
precision int8, src/ngraphbench/compilers/quantize_common): the output check's tensor file
format (src/ngraphbench/measure/check.h: "NGBTENS1", a uint64 count, per tensor a uint64 rank,
int64 dims and float32 data, little-endian)."""
import struct

MAGIC = b"NGBTENS1"
MAX_RANK = 8


def read_tensor_file(path):
    """The file's tensors, in order, as float32 numpy arrays. Raises ValueError naming the file
    when it is not a whole tensor file."""
    import numpy as np  # pylint: disable=import-outside-toplevel

    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != MAGIC:
        raise ValueError(f"{path}: not a tensor file (no NGBTENS1 header)")
    try:
        pos = 8
        (count,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        tensors = []
        for _ in range(count):
            (rank,) = struct.unpack_from("<Q", data, pos)
            pos += 8
            if rank > MAX_RANK:
                raise ValueError(f"a tensor of rank {rank}")
            dims = struct.unpack_from(f"<{rank}q", data, pos)
            pos += 8 * rank
            n = 1
            for d in dims:
                if d < 0:
                    raise ValueError(f"a negative dimension in {dims}")
                n *= d
            if pos + 4 * n > len(data):
                raise ValueError("truncated")
            array = np.frombuffer(data, dtype="<f4", count=n, offset=pos).reshape(dims)
            tensors.append(array.astype(np.float32))
            pos += 4 * n
    except struct.error as e:
        raise ValueError(f"{path}: truncated tensor file ({e})") from e
    except ValueError as e:
        raise ValueError(f"{path}: not a valid tensor file: {e}") from e
    return tensors
