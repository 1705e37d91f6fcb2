extension ImageServerConfiguration {
    /// imgproxy's open-source settings this server does not read (yet), each by imgproxy's name:
    /// set under either prefix, one stops the server at start with a line naming it, rather than
    /// being ignored while its user believes it on. From imgproxy's own code
    /// (docs/imgproxy/imgproxy-settings.tsv names the commit); a row moves to `read` when it is
    /// built.
    static let imgproxySettingsNotRead: [ImageServerSetting] = [
        // server
        .refused("network", "listener network"),
        .refused("soReuseport", "set SO_REUSEPORT on the listener"),
        .refused("setCanonicalHeader", "add Link: <src>; rel=\"canonical\" for http(s) sources"),
        .refused("etagBuster", "global ETag buster"),
        .refused("useLastModified", aliases: ["lastModifiedEnabled"], "Last-Modified from origin; If-Modified-Since forwarded"),
        .refused("lastModifiedBuster", "treat all images as modified at least at this time"),
        // misc
        .refused("freeMemoryInterval", "interval to return unused memory to OS"),
        // logging
        .refused("logMemStats", "periodically log memory stats"),
        // security
        .refused("ignoreSslVerification", "skip TLS verification for sources"),
        .refused("pngUnlimited", "disable libvips PNG chunk limits"),
        .refused("svgUnlimited", "disable libvips SVG size limit (10 MB)"),
        .refused("tiffUnlimited", "disable libvips TIFF limits"),
        // error reporting
        .refused("developmentErrorsMode", "detailed error bodies / HTML error pages"),
        // sources
        .refused("userAgent", "User-Agent for source requests; %current_version substituted"),
        .refused("clientKeepAliveTimeout", "idle keep-alive of the outgoing HTTP client; 0 = off"),
        // sources/s3
        .refused("s3.assumeRoleArn", "STS role to assume"),
        .refused("s3.assumeRoleExternalId", "external ID for the role"),
        .refused("s3.useDecryptionClient", aliases: ["s3.decryptionClientEnabled"], "client-side (S3 encryption client) decryption"),
        .refused("s3.accessPoints", "bucket name -> access point ARN"),
        // sources/gcs
        .refused("useGcs", "enable gs:// sources"),
        .refused("gcsKey", "GCS credentials JSON"),
        .refused("gcsEndpoint", "custom GCS endpoint"),
        .refused("gcsAllowedBuckets", "bucket allowlist"),
        .refused("gcsDeniedBuckets", "bucket denylist"),
        // sources/abs
        .refused("useAbs", "enable abs:// sources"),
        .refused("absName", "Azure account name (required when USE_ABS)"),
        .refused("absKey", "Azure account key"),
        .refused("absEndpoint", "custom ABS endpoint"),
        .refused("absAllowedBuckets", "container allowlist"),
        .refused("absDeniedBuckets", "container denylist"),
        // sources/swift
        .refused("useSwift", "enable swift:// sources"),
        .refused("swiftUsername", "Swift username"),
        .refused("swiftApiKey", "Swift API key"),
        .refused("swiftAuthUrl", "Swift auth URL"),
        .refused("swiftDomain", "domain (v3 auth)"),
        .refused("swiftTenant", "tenant (v2 auth)"),
        .refused("swiftAuthVersion", "auth version 1/2/3"),
        .refused("swiftConnectTimeoutSeconds", "connect timeout"),
        .refused("swiftTimeoutSeconds", "data timeout"),
        .refused("swiftAllowedBuckets", "container allowlist"),
        .refused("swiftDeniedBuckets", "container denylist"),
        // compression
        // formats
        .refused("autoJxl", "same for JPEG XL"),
        .refused("enforceJxl", "same for JPEG XL"),
        .refused("enableClientHints", "use DPR/Width client hints for default dpr/width"),
        // misc
        .refused("useLinearColorspace", "process in linear light"),
        .refused("disableShrinkOnLoad", "disable JPEG/WebP shrink-on-load"),
        // presets
        .refused("presetsSeparator", "separator for PRESETS"),
        .refused("presetsPath", "file with one preset per line (# comments); appended after PRESETS"),
        // metrics/prometheus
        .refused("prometheusNamespace", "metric name prefix"),
        // metrics/newrelic
        .refused("newRelicKey", "license key (enables)"),
        .refused("newRelicAppName", "app name"),
        .refused("newRelicLabels", "labels"),
        .refused("newRelicPropagateExternal", "propagate trace headers to source requests"),
        // metrics/datadog
        .refused("datadogEnable", "enable Datadog tracing"),
        .refused("datadogEnableAdditionalMetrics", "extra metrics via DogStatsD"),
        .refused("datadogPropagateExternal", "propagate trace headers"),
        // metrics/otel
        .refused("openTelemetryEnableMetrics", "enable OTLP metrics"),
        .refused("openTelemetryEnableLogs", "export logs via OTLP (new 4.0)"),
        .refused("openTelemetryLoggerName", "instrumentation scope name for logs"),
        .refused("openTelemetryServerCert", "collector CA cert"),
        .refused("openTelemetryClientCert", "client cert"),
        .refused("openTelemetryClientKey", "client key"),
        .refused("openTelemetryTraceIdGenerator", "trace ID generator"),
        // metrics/cloudwatch
        .refused("cloudWatchServiceName", "ServiceName dimension (enables)"),
        .refused("cloudWatchNamespace", "namespace"),
        .refused("cloudWatchRegion", "AWS region"),
        // error reporting
        .refused("reportDownloadingErrors", "report download errors"),
        .refused("reportIoErrors", "report client I/O errors"),
        .refused("bugsnagKey", "Bugsnag key (enables)"),
        .refused("bugsnagStage", "Bugsnag stage"),
        .refused("honeybadgerKey", "Honeybadger key (enables)"),
        .refused("honeybadgerEnv", "Honeybadger env"),
        .refused("sentryDsn", "Sentry DSN (enables)"),
        .refused("sentryEnvironment", "Sentry environment"),
        .refused("sentryRelease", "Sentry release"),
        .refused("airbrakeProjectId", "Airbrake project id"),
        .refused("airbrakeProjectKey", "Airbrake project key"),
        .refused("airbrakeEnvironment", aliases: ["airbrakeEnv"], "Airbrake environment"),
        // logging
        .refused("syslogEnable", "send logs to syslog"),
        .refused("syslogLevel", "syslog level"),
        .refused("syslogNetwork", "syslog network"),
        .refused("syslogAddress", "syslog address (required if NETWORK set)"),
        .refused("syslogTag", "syslog tag"),
        .refused("failOnDeprecation", "exit on use of a deprecated setting"),
        // env loading
        .refused("envLocalFilePath", "load a .env file (godotenv) into the environment"),
        .refused("envAwsSecretId", "AWS Secrets Manager secret holding .env text"),
        .refused("envAwsSecretVersionId", "secret version id"),
        .refused("envAwsSecretVersionStage", "secret version stage (ignored if VERSION_ID)"),
        .refused("envAwsSecretRegion", "secret region"),
        .refused("envAwsSsmParametersPath", "SSM path; params become env vars (path '/'->'_')"),
        .refused("envAwsSsmParametersRegion", "SSM region"),
        .refused("envGcpSecretId", "GCP Secret Manager secret holding .env text"),
        .refused("envGcpSecretVersionId", "secret version"),
        .refused("envGcpSecretProjectId", "GCP project"),
        .refused("envGcpKey", "service-account JSON for Secret Manager"),
        // misc/debug
        .refused("vipsLeakCheck", "libvips leak check"),
        .refused("vipsCacheTrace", "libvips cache trace"),
        .refused("pprofBind", "pprof listener; only in binaries built with -tags pprof"),
    ]
}
