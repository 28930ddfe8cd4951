"""TEST-ONLY stand-in for the Neuron SDK's neuronxcc package (tests/fakes/nki/README.md)."""
__version__ = "0.0-accelopt-test-stand-in"
ACCELOPT_TEST_STAND_IN = True
