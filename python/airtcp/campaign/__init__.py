"""Campaigns: many runs, stored once each, resumable, on threads or Dask.

* :mod:`~airtcp.campaign.store`: the on-disk store (Parquet parts, a
  journal of commits, a lock), shared by sweeps and reproductions;
* :mod:`~airtcp.campaign.execute`: batches of runs on local threads or a
  Dask cluster, bit-identical results either way;
* :mod:`~airtcp.campaign.paths`: paths into a scenario
  (``link["R->D"].a_to_b.error.per``);
* :mod:`~airtcp.campaign.sweep`: parameter sweeps (``airtcp sweep``,
  :func:`airtcp.sweep`, :func:`airtcp.load_results`).

Nothing here is imported by ``import airtcp`` or ``airtcp run``.
"""
