"""nod's deployment files, read and checked: the Kubernetes manifests as
kubectl kustomize renders them (manifests.py) and `make lint`'s checks of them and
of the Dockerfiles (check.py)."""
