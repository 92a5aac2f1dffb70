package dev.mailqueue.api;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The delivery window of a request (not-before, expires-at) keeps its instant to the nanosecond whichever way the
 * request travels: set and read in one server, copied with its rendered content, or serialized (as a remote EJB
 * call does) and read on the other side, where only the text of the times was carried.
 */
class RequestTimesTest {

    static final Instant NOT_BEFORE = Instant.parse("2030-03-14T09:26:53.123456789Z");
    static final Instant EXPIRES_AT = Instant.parse("2030-03-19T09:26:53Z");

    @Test
    void aMailRequestKeepsItsTimesWhenReadTwiceRenderedAndSerialized() throws Exception {
        MailRequest request = new MailRequest().notBefore(NOT_BEFORE).expiresAt(EXPIRES_AT);

        assertThat(request.getNotBefore()).isEqualTo(NOT_BEFORE);
        assertThat(request.getNotBefore()).isEqualTo(NOT_BEFORE);
        MailRequest copy = request.rendered("Rendered", "text", null);
        MailRequest received = roundTrip(request);

        for (MailRequest r : new MailRequest[]{copy, received}) {
            assertThat(r.getNotBefore()).isEqualTo(NOT_BEFORE);
            assertThat(r.getExpiresAt()).isEqualTo(EXPIRES_AT);
        }
    }

    @Test
    void aMailRequestForgetsATimeThatIsSetBackToNone() {
        MailRequest request = new MailRequest().notBefore(NOT_BEFORE).expiresAt(EXPIRES_AT);
        request.getNotBefore();

        request.setNotBefore(null);
        request.setExpiresAt(NOT_BEFORE);

        assertThat(request.getNotBefore()).isNull();
        assertThat(request.getExpiresAt()).isEqualTo(NOT_BEFORE);
    }

    @Test
    void aRawMailKeepsItsTimesWhenSerialized() throws Exception {
        RawMail mail = new RawMail();
        mail.setNotBefore(NOT_BEFORE);
        mail.setExpiresAt(EXPIRES_AT);

        RawMail received = roundTrip(mail);

        assertThat(received.getNotBefore()).isEqualTo(NOT_BEFORE);
        assertThat(received.getExpiresAt()).isEqualTo(EXPIRES_AT);
        received.setNotBefore(null);
        assertThat(received.getNotBefore()).isNull();
    }

    @SuppressWarnings("unchecked")
    private static <T extends Serializable> T roundTrip(T value) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (T) in.readObject();
        }
    }
}
