"""``paddle.fluid.incubate``: Fluid 1.8's fleet API (``incubate.fleet``), over pe's collective and
parameter-server modes (docs/DISTRIBUTED.md, "The fleet API")."""
