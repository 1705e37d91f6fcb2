/// The playground at `/`: a form for a source and options that shows the signed URL, the result
/// beside the source with its size, format, bytes and time, the source's `/info` (size, format,
/// average and dominant colours as swatches, its BlurHash and ThumbHash painted by the library
/// as placeholders), and a gallery of sample images through a few option sets, portraits cut,
/// blurred and outlined by their faces. Plain HTML and a little script, served by the server itself; the
/// server signs the paths (`/playground/sign`), so the page is on only where configured.
enum PlaygroundPage {
    /// The page, served at `base` (the server's root or mount prefix, ending in `/`); `samples`
    /// are source URLs for the gallery (`local://` paths of images under the local root), and
    /// `portraits` those shown through the face options. The form submits as GET to the page
    /// itself, which processes what its query names.
    static func html(base: String, samples: [String], portraits: [String]) -> String {
        let sampleList = samples.map { "\"" + scriptString($0) + "\"" }.joined(separator: ",")
        let portraitList = portraits.map { "\"" + scriptString($0) + "\"" }.joined(separator: ",")
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>webimage serve: playground</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>
        body { font: 15px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
        form { display: grid; grid-template-columns: 9em 1fr; gap: .5em 1em; max-width: 52em; }
        input, select { font: inherit; padding: .2em .4em; }
        code { word-break: break-all; }
        .pair { display: flex; gap: 2em; align-items: flex-start; margin: 1em 0; flex-wrap: wrap; }
        figure { margin: 0; }
        figcaption { font-size: 13px; color: #555; }
        #gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 1em; }
        [hidden] { display: none !important; }
        #gallery img { max-width: 100%; background: repeating-conic-gradient(#ddd 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
        .error { color: #b00; }
        #info .swatch { display: inline-block; width: 2.2em; height: 2.2em; margin: 0 .3em .3em 0; border: 1px solid #ccc; vertical-align: middle; }
        #info img { width: 160px; margin-right: 1em; image-rendering: auto; }
        </style>
        </head>
        <body>
        <h1>webimage serve: playground</h1>
        <form id="form" method="get">
          <label for="source">Source URL</label>
          <input id="source" name="source" required>
          <label for="options">Options</label>
          <input id="options" name="options" value="rs:fill:300:200/g:sm">
          <label for="format">Format</label>
          <select id="format" name="format">
            <option value="">from the source / Accept</option>
            <option>jpg</option><option>png</option><option>webp</option><option>avif</option><option>gif</option>
          </select>
          <span></span><button type="submit">Process</button>
        </form>
        <p>Signed URL: <code id="signed">(none yet)</code></p>
        <div class="pair" id="pair" hidden>
          <figure><img id="result" alt="result"><figcaption id="result-info"></figcaption></figure>
          <figure><img id="original" alt="source" style="max-width: 400px"><figcaption>source</figcaption></figure>
          <section id="info">
            <p id="info-facts"></p>
            <div id="info-swatches"></div>
            <figure><img id="info-blurhash" alt="BlurHash placeholder"><img id="info-thumbhash" alt="ThumbHash placeholder">
            <figcaption>BlurHash and ThumbHash placeholders</figcaption></figure>
          </section>
        </div>
        <h2>Gallery</h2>
        <div id="gallery"></div>
        <script>
        const base = "\(scriptString(base))";
        const samples = [\(sampleList)];
        const optionSets = ["rs:fill:300:200/g:sm", "rs:fit:300:300/bl:3", "rs:fill:200:200/rc:40/f:png"];
        // Portraits: a tall cut around the faces (`sm` beside it), their outlines, their blur.
        const portraits = [\(portraitList)];
        const faceOptionSets = ["rs:fill:150:300/g:obj:face", "rs:fill:150:300/g:sm", "rs:fit:300:300/dd:1:face", "rs:fit:300:300/bd:10:face"];
        async function signed(source, options, format) {
          const query = new URLSearchParams({ source, options, format });
          const response = await fetch(base + "playground/sign?" + query);
          if (!response.ok) throw new Error(await response.text());
          return (await response.json()).path;
        }
        async function show(source, options, format) {
          const info = document.getElementById("result-info");
          info.className = "";
          try {
            const path = await signed(source, options, format);
            document.getElementById("signed").textContent = path;
            document.getElementById("pair").hidden = false;
            const started = performance.now();
            const response = await fetch(base + path.slice(1));
            const blob = await response.blob();
            if (!response.ok) throw new Error(response.status + " " + await blob.text());
            const image = document.getElementById("result");
            image.onload = () => {
              info.textContent = image.naturalWidth + "x" + image.naturalHeight + ", " + blob.type + ", " +
                blob.size + " bytes, " + Math.round(performance.now() - started) + " ms, " + (response.headers.get("X-Cache") || "");
              image.dataset.width = image.naturalWidth;
              image.dataset.height = image.naturalHeight;
            };
            image.src = URL.createObjectURL(blob);
            const original = await signed(source, "raw:1", "");
            document.getElementById("original").src = base + original.slice(1);
            await showInfo(source);
          } catch (error) {
            info.className = "error";
            info.textContent = String(error.message || error);
          }
        }
        // The source's /info: facts, colour swatches, and the placeholders the library paints.
        async function showInfo(source) {
          const query = new URLSearchParams({ source, options: infoOptions, kind: "info" });
          const signing = await fetch(base + "playground/sign?" + query);
          if (!signing.ok) throw new Error(await signing.text());
          const response = await fetch(base + (await signing.json()).path.slice(1));
          if (!response.ok) throw new Error("info: " + response.status + " " + await response.text());
          const info = await response.json();
          document.getElementById("info-facts").textContent = "source: " + info.width + "x" + info.height + ", " +
            info.format + ", " + info.size + " bytes, " + info.colorspace + ", " + info.bands + " bands";
          const swatches = document.getElementById("info-swatches");
          swatches.textContent = "";
          const colours = Object.entries(info.dominant_colors || {});
          if (info.average) colours.unshift(["average", info.average]);
          for (const [name, colour] of colours) {
            const swatch = document.createElement("span");
            swatch.className = "swatch";
            swatch.title = name;
            swatch.dataset.name = name;
            swatch.style.background = "rgb(" + colour.R + "," + colour.G + "," + colour.B + ")";
            swatches.appendChild(swatch);
          }
          const height = Math.max(1, Math.round(32 * info.height / Math.max(1, info.width)));
          paint("info-blurhash", "blurhash=" + encodeURIComponent(info.blurhash) + "&width=32&height=" + height);
          paint("info-thumbhash", "thumbhash=" + encodeURIComponent(info.thumb_hash));
        }
        function paint(id, query) {
          const image = document.getElementById(id);
          image.onload = () => { image.dataset.width = image.naturalWidth; image.dataset.height = image.naturalHeight; };
          image.src = base + "playground/placeholder?" + query;
        }
        const infoOptions = "exif:0/iptc:0/xmp:0/cs:1/b:1/avg:1/dc:1/bh:4:3/th:1";
        const asked = new URLSearchParams(location.search);
        if (asked.get("source")) {
          for (const name of ["source", "options", "format"]) document.getElementById(name).value = asked.get(name) || "";
          show(asked.get("source"), asked.get("options") || "", asked.get("format") || "");
        }
        (async () => {
          if (samples.length && !asked.get("source")) document.getElementById("source").value = samples[0];
          const gallery = document.getElementById("gallery");
          const tiles = samples.flatMap((source) => optionSets.map((options) => [source, options]))
            .concat(portraits.flatMap((source) => faceOptionSets.map((options) => [source, options])));
          for (const [source, options] of tiles) {
            const path = await signed(source, options, "");
            const figure = document.createElement("figure");
            figure.innerHTML = "<img loading=lazy><figcaption></figcaption>";
            figure.querySelector("img").src = base + path.slice(1);
            figure.querySelector("figcaption").textContent = source.split("/").pop() + " " + options;
            gallery.appendChild(figure);
          }
        })();
        </script>
        </body>
        </html>
        """
    }

    /// `text` safe inside a double-quoted string in a `<script>`: no quote, backslash or `<`.
    private static func scriptString(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: "<", with: "")
    }
}
