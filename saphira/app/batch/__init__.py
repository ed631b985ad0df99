"""``saphira batch``: experiments at scale, many lock-step trials on this machine or a Dask cluster.

* :mod:`~saphira.app.batch.experiment` — the TOML experiment file, expanded into trials;
* :mod:`~saphira.app.batch.trial` — one trial: a lock-step ``saphira run`` with parameters set, measured;
* :mod:`~saphira.app.batch.metrics` — built-in metrics and user ``METRIC`` lines / hooks;
* :mod:`~saphira.app.batch.watchdog` — the wall-clock limit that ends a hung trial;
* :mod:`~saphira.app.batch.runner` — serial, local Dask cluster, or an existing scheduler;
* :mod:`~saphira.app.batch.results` — ``trials.csv`` written as trials end, resumable;
* :mod:`~saphira.app.batch.summary`, :mod:`~saphira.app.batch.plots` — mean and 95 % CI per configuration, plots;
* :mod:`~saphira.app.batch.command` — the command line.
"""
