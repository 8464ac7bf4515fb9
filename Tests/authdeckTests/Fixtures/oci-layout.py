"""Writes a one-layer OCI image layout (image-spec v1) to argv[1]: a gzipped tar holding one file, its config and
manifest, each a blob named by its sha256, and index.json naming the manifest under the tag argv[2]."""
import gzip, hashlib, io, json, os, sys, tarfile

root, tag = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(root, "blobs", "sha256"), exist_ok=True)


def blob(data):
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(root, "blobs", "sha256", digest), "wb") as out:
        out.write(data)
    return "sha256:" + digest


raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w") as tar:
    content = b"hello from authdeck's registry test\n"
    info = tarfile.TarInfo("hello.txt")
    info.size = len(content)
    tar.addfile(info, io.BytesIO(content))
diff_id = "sha256:" + hashlib.sha256(raw.getvalue()).hexdigest()
layer = gzip.compress(raw.getvalue(), mtime=0)
config = json.dumps({
    "architecture": "amd64", "os": "linux",
    "rootfs": {"type": "layers", "diff_ids": [diff_id]},
}).encode()
manifest = json.dumps({
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": blob(config), "size": len(config)},
    "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": blob(layer), "size": len(layer)}],
}).encode()
index = {
    "schemaVersion": 2,
    "manifests": [{
        "mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": blob(manifest), "size": len(manifest),
        "annotations": {"org.opencontainers.image.ref.name": tag},
    }],
}
with open(os.path.join(root, "index.json"), "w") as out:
    json.dump(index, out)
with open(os.path.join(root, "oci-layout"), "w") as out:
    json.dump({"imageLayoutVersion": "1.0.0"}, out)
