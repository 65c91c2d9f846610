"""Fit on a Dask cluster: the rows stay on the workers (docs/cluster.rst runs this file)."""
import dask.array as da
import numpy as np
from distributed import Client, LocalCluster

from marginboost import MLPBoostClassifier
from marginboost.dask import DaskMLPBoostClassifier

if __name__ == "__main__":
    # On a real cluster: client = Client("tcp://scheduler:8786"), and nothing else changes.
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster, Client(cluster) as client:
        # Data generated on the workers (or read there: da.from_zarr, dask.dataframe.read_parquet).
        rng = da.random.default_rng(0)
        X = rng.standard_normal((40_000, 20), chunks=(10_000, 20))
        y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int8)

        clf = DaskMLPBoostClassifier(nu=0.1, eps=0.05, max_iter=20, client=client).fit(X, y)
        print(f"{clf.n_iter_} rounds, status {clf.status_}, soft margin {clf.margin_:.3f}, "
              f"{np.count_nonzero(clf.weights_)} hypotheses of nonzero weight")

        labels = clf.predict(X)  # lazy: a dask array, computed on the workers
        print("training accuracy", float((labels == y).mean().compute()))

        local = clf.to_local()  # the same model in memory: a MLPBoostClassifier
        assert isinstance(local, MLPBoostClassifier)
        clf.save("cluster_model.json")  # the in-memory class's model file
