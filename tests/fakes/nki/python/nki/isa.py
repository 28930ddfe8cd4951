"""TEST-ONLY stand-in for nki.isa."""
from accelopt_stand_in import dma_copy  # noqa: F401
