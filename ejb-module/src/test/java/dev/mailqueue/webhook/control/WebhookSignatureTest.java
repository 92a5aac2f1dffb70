package dev.mailqueue.webhook.control;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Standard Webhooks signature, checked against the specification's own example. */
class WebhookSignatureTest {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    @Test
    void signsAsTheStandardWebhooksExampleSays() {
        WebhookSignature signature = new WebhookSignature(WebhookSignature.key(SECRET));
        assertThat(signature.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, "{\"test\": 2432232314}"))
                .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    @Test
    void aReceiverAcceptsTheSignatureAndRefusesAnyChangedPart() {
        WebhookSignature signature = new WebhookSignature(WebhookSignature.key(SECRET));
        String header = "v0,xyz " + signature.sign("evt_1", 1700000000, "{\"a\":1}");
        assertThat(signature.verify("evt_1", 1700000000, "{\"a\":1}", header)).isTrue();
        assertThat(signature.verify("evt_2", 1700000000, "{\"a\":1}", header)).isFalse();
        assertThat(signature.verify("evt_1", 1700000001, "{\"a\":1}", header)).isFalse();
        assertThat(signature.verify("evt_1", 1700000000, "{\"a\":2}", header)).isFalse();
        assertThat(signature.verify("evt_1", 1700000000, "{\"a\":1}", "v1,not base64!")).isFalse();
    }

    @Test
    void aSecretMustHaveThePrefixAndTwentyFourToSixtyFourBytes() {
        assertThatThrownBy(() -> WebhookSignature.key("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")).hasMessageContaining("whsec_");
        assertThatThrownBy(() -> WebhookSignature.key("whsec_c2hvcnQ=")).hasMessageContaining("got 5");
        assertThatThrownBy(() -> WebhookSignature.key("whsec_%%%")).hasMessageContaining("not base64");
        assertThat(WebhookSignature.key(SECRET)).hasSize(24);
    }
}
