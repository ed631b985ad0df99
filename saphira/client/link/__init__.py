"""Links: the connection state machine over a transport (the Pioneer link, the velocity links of the other
wire protocols) and the registry that picks a link by URL scheme."""
