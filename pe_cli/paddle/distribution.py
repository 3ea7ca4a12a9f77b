"""``paddle.distribution`` of Paddle 1.8.5: an empty module (its distributions are
``fluid.layers.distributions``: Uniform, Normal, Categorical, MultivariateNormalDiag; Paddle 2.x's
``paddle.distribution`` is another, larger module)."""
