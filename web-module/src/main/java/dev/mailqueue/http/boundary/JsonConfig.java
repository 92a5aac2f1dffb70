package dev.mailqueue.http.boundary;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbConfig;
import jakarta.json.bind.config.BinaryDataStrategy;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;

/**
 * The JSON-B the REST API reads and writes with: as JSON-B's default, except that byte arrays (the
 * content of attachments) are base64 text (RFC 4648 §4) rather than JSON-B's default array of numbers.
 */
@Provider
public class JsonConfig implements ContextResolver<Jsonb> {

    private static final Jsonb JSONB = JsonbBuilder.create(new JsonbConfig()
            .withBinaryDataStrategy(BinaryDataStrategy.BASE_64));

    @Override
    public Jsonb getContext(Class<?> type) {
        return JSONB;
    }
}
