"""Pack declarations that go wrong in each way loading must report in one line."""
