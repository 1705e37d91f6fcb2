"""Signed imgproxy paths built by pyimgproxy, a third-party URL builder (PyPI, BSD-3-Clause), for
ImgproxyMigrationTests: the test's URLs come from a client that knows imgproxy, not from this
project's signer.

Usage: imgproxy_paths.py KEY_HEX SALT_HEX PREFIX REQUESTS_JSON
REQUESTS_JSON is a list of {"source": URL, "options": [[name, argument, ...], ...]}; the paths
are printed as a JSON list, each PREFIX followed by the signed path (pyimgproxy writes its
configured URL in front of the path, and the signature does not cover it, as in imgproxy).
"""

import json
import sys

from pyimgproxy import ImgProxy


def main() -> None:
    key, salt, prefix, requests = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    imgproxy = ImgProxy(url=prefix, key=key, salt=salt)
    paths = []
    for request in requests:
        image = imgproxy.image(request["source"])
        for option in request["options"]:
            image = image.add_option(*option)
        paths.append(image.url)
    json.dump(paths, sys.stdout)


if __name__ == "__main__":
    main()
