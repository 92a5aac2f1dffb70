package dev.mailqueue.ses.control;

import dev.mailqueue.settings.control.Settings;

import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The settings of one account that sends through Amazon SES ({@code mailqueue.account.<name>.relay=ses}), read from
 * MicroProfile Config (server.xml variables, environment variables such as
 * {@code MAILQUEUE_ACCOUNT_BULK_SES_REGION}):
 * <ul>
 *   <li>{@code mailqueue.account.<name>.ses.region}: the AWS region of the SES endpoint, e.g. {@code eu-west-1};
 *       required.</li>
 *   <li>{@code mailqueue.account.<name>.ses.endpoint}: another endpoint than the region's, e.g. a VPC interface
 *       endpoint; an {@code https} URL, or {@code http} to a loopback address only (a local SES emulator, a local
 *       tunnel). Default: the region's public endpoint.</li>
 *   <li>{@code mailqueue.account.<name>.ses.configuration-set}: the configuration set each mail names (event
 *       destinations, dedicated IP pools). Default none.</li>
 *   <li>{@code mailqueue.account.<name>.ses.access-key-id} and {@code .ses.secret-access-key}: an IAM user's key,
 *       both or neither; when neither is set the SDK's default chain finds the credentials (the environment
 *       variables {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}, the shared credentials file, the ECS
 *       container or EC2 instance role), which AWS recommends over long-lived keys.</li>
 *   <li>{@code mailqueue.ses.timeout.ms}: the longest wait for SES's answer to one request, 1,000 to 600,000 ms,
 *       default 30,000; a request written and not answered in that time leaves its mail in doubt.</li>
 *   <li>{@code mailqueue.ses.connect-timeout.ms}: the longest wait to connect, 100 to 60,000 ms, default 5,000.</li>
 * </ul>
 *
 * @param account         the account's name
 * @param region          an AWS region name, e.g. {@code us-east-1}
 * @param endpoint        the endpoint the requests go to; null for the region's own
 * @param configurationSet the SES configuration set to name, or null
 * @param accessKeyId     the access key id, or null for the SDK's default credentials chain
 * @param secretAccessKey its secret, null exactly when {@code accessKeyId} is; never shown by {@link #toString()}
 * @param timeout         how long one request may wait for its answer
 * @param connectTimeout  how long connecting may take
 */
public record SesSettings(String account, String region, URI endpoint, String configurationSet, String accessKeyId,
                          String secretAccessKey, Duration timeout, Duration connectTimeout) {

    /** The longest wait for an answer, ms, unless {@value #TIMEOUT} says otherwise. */
    public static final long DEFAULT_TIMEOUT_MS = 30_000;
    /** The setting of the wait for an answer. */
    public static final String TIMEOUT = "mailqueue.ses.timeout.ms";
    /** The setting of the wait for a connection. */
    public static final String CONNECT_TIMEOUT = "mailqueue.ses.connect-timeout.ms";

    /** AWS region names: {@code us-east-1}, {@code eu-central-2}, {@code us-gov-west-1}, {@code ap-southeast-5}. */
    private static final Pattern REGION = Pattern.compile("[a-z]{2,}(-[a-z]+)+-[0-9]{1,2}");
    /** SES configuration set names: 1 to 64 letters, digits, underscores and hyphens (SES API reference). */
    private static final Pattern CONFIGURATION_SET = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** AWS access key ids: 16 to 128 characters of {@code \w} (IAM API reference, AccessKeyId). */
    private static final Pattern ACCESS_KEY_ID = Pattern.compile("\\w{16,128}");

    /**
     * @param account  an account whose relay is {@code ses}
     * @param settings where the settings are read
     * @return the account's SES settings
     * @throws IllegalStateException naming the setting at fault: no or a malformed region, an endpoint that is no
     *                               https URL (or http to a loopback address), a malformed configuration set, an
     *                               access key id without its secret or the other way round, a timeout out of range;
     *                               never showing the secret
     */
    public static SesSettings parse(String account, Settings settings) {
        String prefix = "mailqueue.account." + account + ".ses.";
        String region = settings.optional(prefix + "region").orElseThrow(() -> new IllegalStateException(prefix
                + "region is not set: account " + account + " sends through Amazon SES and needs its region, e.g. eu-west-1"));
        if (!REGION.matcher(region).matches()) {
            throw new IllegalStateException(prefix + "region: '" + region + "' is no AWS region name, e.g. eu-west-1");
        }
        URI endpoint = settings.optional(prefix + "endpoint").map(e -> Settings.secureUrl(prefix + "endpoint", e,
                "the requests carry the mail")).orElse(null);
        if (endpoint != null && endpoint.getRawQuery() != null) {
            throw new IllegalStateException(prefix + "endpoint: '" + endpoint + "' must have no query");
        }
        String set = settings.optional(prefix + "configuration-set").orElse(null);
        if (set != null && !CONFIGURATION_SET.matcher(set).matches()) {
            throw new IllegalStateException(prefix + "configuration-set: '" + set
                    + "' must be 1 to 64 letters, digits, underscores and hyphens");
        }
        String keyId = settings.optional(prefix + "access-key-id").orElse(null);
        String secret = settings.optional(prefix + "secret-access-key").orElse(null);
        if ((keyId == null) != (secret == null)) {
            throw new IllegalStateException(prefix + (keyId == null ? "secret-access-key is set without "
                    + prefix + "access-key-id" : "access-key-id is set without " + prefix + "secret-access-key")
                    + ": set both, or neither for the SDK's default credentials (environment, instance or container role)");
        }
        if (keyId != null && !ACCESS_KEY_ID.matcher(keyId).matches()) {
            throw new IllegalStateException(prefix + "access-key-id: not an AWS access key id (16 to 128 letters and digits)");
        }
        return new SesSettings(account, region, endpoint, set, keyId, secret,
                Duration.ofMillis(settings.whole(TIMEOUT, 1_000, 600_000, DEFAULT_TIMEOUT_MS)),
                Duration.ofMillis(settings.whole(CONNECT_TIMEOUT, 100, 60_000, 5_000)));
    }

    /** @return true when the account names its own access key instead of the SDK's default chain */
    public boolean hasOwnKey() {
        return accessKeyId != null;
    }

    /** @return the last four characters of the access key id, enough to tell keys apart in a log; null for none */
    public String keyIdEnd() {
        return accessKeyId == null ? null : accessKeyId.substring(accessKeyId.length() - 4);
    }

    @Override
    public String toString() {
        return "SesSettings[account=" + account + ", region=" + region + ", endpoint=" + endpoint
                + ", configurationSet=" + configurationSet + ", credentials="
                + (accessKeyId == null ? "default chain" : "access key ..." + keyIdEnd()) + ", timeout=" + timeout
                + ", connectTimeout=" + connectTimeout + "]";
    }
}
