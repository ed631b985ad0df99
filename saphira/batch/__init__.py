"""``saphira batch``: experiments at scale, many lock-step trials on this machine or a Dask cluster.

* :mod:`~saphira.batch.experiment` — the TOML experiment file, expanded into trials;
* :mod:`~saphira.batch.trial` — one trial: a lock-step ``saphira run`` with parameters set, measured;
* :mod:`~saphira.batch.metrics` — built-in metrics and user ``METRIC`` lines / hooks;
* :mod:`~saphira.batch.watchdog` — the wall-clock limit that ends a hung trial;
* :mod:`~saphira.batch.runner` — serial, local Dask cluster, or an existing scheduler;
* :mod:`~saphira.batch.results` — ``trials.csv`` written as trials end, resumable;
* :mod:`~saphira.batch.summary`, :mod:`~saphira.batch.plots` — mean and 95 % CI per configuration, plots;
* :mod:`~saphira.batch.command` — the command line.
"""
