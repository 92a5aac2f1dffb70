package dev.mailqueue.login.control;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The file an operator names for a refresh-token account ({@code mailqueue.account.<name>.oauth2.refresh-token-file}):
 * it holds the refresh token (its first line), and the queue writes a rotated one back to it (OAuth 2.0 servers that
 * rotate refresh tokens invalidate the old one once the new is issued). Each use of the token runs under an exclusive
 * lock of a sibling lock file ({@code <file>.lock}), so that the servers of a queue that share the file (a shared file
 * system with POSIX locks) never present the same refresh token twice. Replacing the token is atomic (a new file moved
 * over the old, owner-only permissions where the file system has them). An operator who puts a new refresh token in
 * the file, after the server refused the old one, is heard at the next renewal: no restart.
 */
final class RefreshTokenFile {

    private final Path file;

    /** @param file the file holding the refresh token */
    RefreshTokenFile(Path file) {
        this.file = file;
    }

    /** What is done with the refresh token while the lock is held. */
    @FunctionalInterface
    interface Use<T> {
        /**
         * @param refreshToken the refresh token the file holds now
         * @param replace      writes a rotated refresh token back to the file
         * @return what the use gives
         * @throws TokenException when the token request failed
         */
        T with(String refreshToken, Replace replace) throws TokenException;
    }

    /** Writes a rotated refresh token back to the file. */
    @FunctionalInterface
    interface Replace {
        /**
         * @param refreshToken the refresh token the server issued in place of the old one
         * @throws TokenException when it cannot be written (the message names the file; the token is then lost)
         */
        void with(String refreshToken) throws TokenException;
    }

    /**
     * @param use what to do with the refresh token
     * @param <T> what the use gives
     * @return what the use gave
     * @throws TokenException when the file cannot be read or locked, holds no token, or the use failed
     */
    <T> T locked(Use<T> use) throws TokenException {
        Path lock = file.resolveSibling(file.getFileName() + ".lock");
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock held = channel.lock()) {
            return use.with(read(), this::replace);
        } catch (IOException e) {
            throw new TokenException("the refresh token file " + file + " cannot be locked: " + e, e);
        }
    }

    private String read() throws TokenException {
        try {
            if (Files.size(file) > KeyFiles.MAX_BYTES) {
                throw new TokenException("the refresh token file " + file + " is larger than " + KeyFiles.MAX_BYTES + " bytes");
            }
            String token = Files.readString(file, StandardCharsets.UTF_8).strip().lines().findFirst().orElse("").strip();
            if (token.isEmpty()) {
                throw new TokenException("the refresh token file " + file + " holds no refresh token");
            }
            return token;
        } catch (IOException e) {
            throw new TokenException("the refresh token file " + file + " cannot be read: " + e, e);
        }
    }

    private void replace(String token) throws TokenException {
        try {
            Path next = Files.createTempFile(file.toAbsolutePath().getParent(), ".refresh-token", ".tmp");
            try {
                try {
                    Files.setPosixFilePermissions(next, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException notPosix) {
                    // the file system keeps no POSIX permissions
                }
                Files.writeString(next, token + "\n", StandardCharsets.UTF_8);
                try {
                    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(next);
            }
        } catch (IOException e) {
            throw new TokenException("the rotated refresh token cannot be written to " + file + ": " + e, e);
        }
    }
}
