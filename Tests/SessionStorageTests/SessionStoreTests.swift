import AuthCore
import AuthCrypto
import Foundation
import Testing

@testable import SessionStorage

/// The store API: persist-before-return, keys, selection, unlocking, damage, permissions, schema.
@Suite struct SessionStoreTests {
    let fixture = StoreFixture()

    @Test func persistReturnsOnlyWhatAnotherConnectionCanRead() throws {
        let store = try fixture.open()
        let session = StoreFixture.session("work", refresh: "RT-work")
        let record = try store.persist(session, replace: false)
        #expect(record == session.record)
        // A second connection (as another process would have) sees the committed row at once.
        let other = try fixture.open()
        #expect(try other.entries().map(\.record) == [session.record])
        #expect(try other.session("work") == session)
    }

    @Test func aTakenKeyIsAnErrorUnlessReplace() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("a", access: "first"), replace: false)
        #expect(throws: StoreError.keyTaken("a")) {
            try store.persist(StoreFixture.session("a", access: "second"), replace: false)
        }
        #expect(try store.session("a").secrets.accessToken == "first")
        try store.persist(StoreFixture.session("a", access: "second"), replace: true)
        #expect(try store.session("a").secrets.accessToken == "second")
        #expect(try store.entries().count == 1)
    }

    @Test func aBatchIsAllOrNothing() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("taken"), replace: false)
        #expect(throws: StoreError.keyTaken("taken")) {
            try store.persist([StoreFixture.session("new1"), StoreFixture.session("taken")], replace: false)
        }
        #expect(try store.entries().map(\.record.key) == ["taken"])
    }

    @Test func onlyTheFirstSessionIsSelectedAutomatically() throws {
        let store = try fixture.open()
        #expect(try store.selectedKey() == nil)
        #expect(throws: StoreError.noSessionSelected) { try store.session() }
        try store.persist(StoreFixture.session("first"), replace: false)
        try store.persist(StoreFixture.session("second"), replace: false)
        #expect(try store.selectedKey() == "first")
        #expect(try store.session().record.key == "first")
        try store.select("second")
        #expect(try store.entries().filter(\.isSelected).map(\.record.key) == ["second"])
        #expect(throws: StoreError.noSuchSession("third")) { try store.select("third") }
        try store.remove("second")
        #expect(try store.selectedKey() == nil, "removing the selected session clears the selection")
        try store.persist(StoreFixture.session("third"), replace: false)
        #expect(try store.selectedKey() == "third", "with none selected, a new session is selected")
        #expect(throws: StoreError.noSuchSession("second")) { try store.remove("second") }
        #expect(try store.remove(["first", "third", "never-there"]) == 2)
        #expect(try store.entries().isEmpty)
    }

    @Test func autoRefreshFlagIsKeptPerSession() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("a"), replace: false)
        try store.persist(StoreFixture.session("b"), replace: false)
        try store.setAutoRefresh("b", true)
        #expect(try store.entry("a").record.autoRefresh == false)
        #expect(try store.entry("b").record.autoRefresh == true)
        #expect(throws: StoreError.noSuchSession("c")) { try store.setAutoRefresh("c", true) }
    }

    @Test func storedAtIsWhenTheTokensWereWrittenNotWhenAFlagChanged() throws {
        let store = try fixture.open()
        let before = Date()
        try store.persist(StoreFixture.session("a"), replace: false)
        let stored = try #require(try store.session("a").record.storedAt)
        #expect(stored >= before.addingTimeInterval(-0.001) && stored <= Date())
        Thread.sleep(forTimeInterval: 0.02)
        try store.setAutoRefresh("a", true)
        #expect(try store.entry("a").record.storedAt == stored)
        let updateStarted = Date()
        try store.update(try store.session("a"))
        #expect(try #require(try store.session("a").record.storedAt) >= updateStarted.addingTimeInterval(-0.001))
    }

    @Test func listingNeedsNoKeyButSecretsDo() throws {
        let store = try fixture.open()
        var session = StoreFixture.session("a", refresh: "RT")
        session.secrets.refreshExpiresAt = Date(timeIntervalSince1970: 1_900_000_000)
        try store.persist(session, replace: false)
        let locked = try fixture.open(passphrase: .unavailable)
        let entry = try locked.entry("a")
        #expect(entry.record == session.record)
        #expect(entry.refreshExpiresAt == session.secrets.refreshExpiresAt)
        Self.expectLocked(mentioning: "passphrase") { _ = try locked.session("a") }
    }

    /// `body` fails as a locked store whose reason mentions `word`.
    static func expectLocked(
        mentioning word: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("the store answered instead of being locked", sourceLocation: sourceLocation)
        } catch {
            guard case .locked(let how) = error as? StoreError else {
                Issue.record("expected locked, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(how.contains(word), sourceLocation: sourceLocation)
        }
    }

    @Test func aWrongPassphraseLeavesTheFileByteForByte() throws {
        try fixture.open().persist(StoreFixture.session("a"), replace: false)
        let before = try #require(fixture.databaseDigest)
        let wrong = try fixture.open(passphrase: .fixed("not the passphrase"))
        #expect(throws: StoreError.wrongPassphrase) { try wrong.session("a") }
        #expect(throws: StoreError.wrongPassphrase) { try wrong.persist(StoreFixture.session("b"), replace: false) }
        #expect(fixture.databaseDigest == before)
        #expect(try fixture.open().session("a").secrets.accessToken == "AT-a")
    }

    @Test func aMissingPassphraseFileIsLockedAndChangesNothing() throws {
        try fixture.open().persist(StoreFixture.session("a"), replace: false)
        let before = try #require(fixture.databaseDigest)
        let source = PassphraseUnlock.fromEnvironment(["AUTHDECK_PASSPHRASE_FILE": fixture.path + "/missing"])
        let store = try fixture.open(passphrase: source)
        Self.expectLocked(mentioning: "AUTHDECK_PASSPHRASE_FILE") { _ = try store.session("a") }
        #expect(fixture.databaseDigest == before)
    }

    @Test func aPassphraseFileDropsOneTrailingNewline() throws {
        let file = fixture.path + "/pass"
        FileManager.default.createFile(
            atPath: file, contents: Data("unit passphrase\n".utf8),
            attributes: [.posixPermissions: 0o600])
        try fixture.open().persist(StoreFixture.session("a"), replace: false)
        let store = try fixture.open(passphrase: .fromEnvironment(["AUTHDECK_PASSPHRASE_FILE": file]))
        #expect(try store.session("a").secrets.accessToken == "AT-a")
    }

    @Test func aFlippedBitDamagesOneSessionAndNothingIsRewritten() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("good"), replace: false)
        try store.persist(StoreFixture.session("bad"), replace: false)
        // Flip one bit of the sealed blob through a raw connection, as bit rot would.
        let raw = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        let read = try raw.prepare("SELECT secret FROM sessions WHERE key = 'bad'")
        #expect(try read.step())
        var blob = try #require(read.blob(0))
        blob[blob.count / 2] ^= 0x01
        let write = try raw.prepare("UPDATE sessions SET secret = ?1 WHERE key = 'bad'")
        write.bind(1, blob)
        try write.step()
        raw.close()
        let before = try #require(fixture.databaseDigest)
        let reader = try fixture.open()
        #expect(throws: StoreError.damagedSession("bad")) { try reader.session("bad") }
        #expect(try reader.session("good").secrets.accessToken == "AT-good")
        #expect(try reader.entries().count == 2)
        #expect(StoreError.damagedSession("bad").description.contains("'bad'"))
        #expect(fixture.databaseDigest == before)
    }

    /// `count` sessions whose tokens are `tokenLength` characters, then the store closed.
    func fill(_ count: Int, tokenLength: Int) throws {
        let store = try fixture.open()
        for index in 0..<count {
            try store.persist(
                StoreFixture.session("s\(index)", access: String(repeating: "t", count: tokenLength)), replace: false)
        }
        store.close()
    }

    @Test(arguments: ["truncated", "zeroed", "garbage", "empty"])
    func aDamagedFileIsReportedByNameAndLeftAlone(_ damage: String) throws {
        // Closing checkpoints the WAL, so the main file holds everything and the damage cannot hide behind the WAL.
        try fill(60, tokenLength: 400)
        let original = try #require(fixture.databaseBytes)
        let damaged: [UInt8] =
            switch damage {
            case "truncated": Array(original[..<(original.count * 2 / 3)])
            case "zeroed": [UInt8](repeating: 0, count: original.count)
            case "garbage": (0..<original.count).map { UInt8(truncatingIfNeeded: ($0 &* 7919) >> 3) }
            default: []
            }
        #expect(
            FileManager.default.createFile(
                atPath: fixture.databasePath, contents: Data(damaged),
                attributes: [.posixPermissions: 0o600]))
        do {
            _ = try SessionStore.open(fixture.location, options: fixture.options())?.entries()
            Issue.record("a \(damage) database opened")
        } catch {
            guard case .damagedDatabase(let path, _) = error else {
                Issue.record("expected damagedDatabase, got \(error)")
                return
            }
            #expect(path == fixture.databasePath)
            #expect(error.description.contains(fixture.databasePath))
        }
        #expect(fixture.databaseDigest == StoreFixture.digest(damaged))
    }

    @Test func aDamagedPageFoundOnReadIsDiagnosedAndLeftAlone() throws {
        try fill(200, tokenLength: 300)
        // Overwrite a page of the sessions table's rows (header intact) with junk: only a read of it notices. The
        // middle leaf, found by SQLite's dbstat, since the file also holds indexes and the search index.
        let raw = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        let leaves = try raw.prepare(
            "SELECT pageno FROM dbstat WHERE name = 'sessions' AND pagetype = 'leaf' ORDER BY pageno")
        var numbers: [Int] = []
        while try leaves.step() { numbers.append(Int(leaves.int64(0))) }
        raw.close()
        var bytes = try #require(fixture.databaseBytes)
        let page = 4096
        let middle = (try #require(numbers.isEmpty ? nil : numbers[numbers.count / 2]) - 1) * page
        for offset in middle..<(middle + page) { bytes[offset] = 0xA5 }
        #expect(
            FileManager.default.createFile(
                atPath: fixture.databasePath, contents: Data(bytes),
                attributes: [.posixPermissions: 0o600]))
        let reader = try fixture.open()
        #expect(throws: StoreError.self) { try reader.entries() }
        do {
            _ = try reader.entries()
        } catch {
            guard case .damagedDatabase(let path, _) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(path == fixture.databasePath)
        }
        #expect(fixture.databaseDigest == StoreFixture.digest(bytes))
    }

    @Test func permissionsAreCheckedAndRepairedWithAWarning() throws {
        try fixture.open().persist(StoreFixture.session("a"), replace: false)
        chmod(fixture.location.directory, 0o750)
        chmod(fixture.databasePath, 0o640)
        _ = try fixture.open()
        var info = stat()
        #expect(stat(fixture.location.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(fixture.databasePath, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let warnings = fixture.warnings.all
        #expect(warnings.contains { $0.contains("0750") && $0.contains("0700") })
        #expect(warnings.contains { $0.contains("0640") && $0.contains("0600") })
    }

    @Test func aNewStoreIsCreatedPrivate() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("a"), replace: false)
        for (path, mode) in [
            (fixture.location.directory, 0o700), (fixture.databasePath, 0o600),
            (fixture.databasePath + "-wal", 0o600),
        ] as [(String, mode_t)] {
            var info = stat()
            #expect(stat(path, &info) == 0, "\(path) missing")
            #expect(info.st_mode & 0o777 == mode, "\(path) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        #expect(fixture.warnings.all.isEmpty)
    }

    @Test func noSecretIsWrittenInClearInTheFileOrTheWAL() throws {
        let store = try fixture.open()
        let secrets = [
            "ACCESS-TOKEN-unit-123456", "REFRESH-TOKEN-unit-123456", "ID-TOKEN-unit-123456",
            "SESSION-JWT-unit-123456", String(repeating: "5eed", count: 16),
        ]
        try store.persist(
            Session(
                record: StoreFixture.session("a").record,
                secrets: SessionSecrets(
                    accessToken: secrets[0], refreshToken: secrets[1],
                    idToken: secrets[2], sessionJwt: secrets[3],
                    privateKeyHex: secrets[4])), replace: false)
        // The connection stays open, so the WAL still holds the write.
        let wal = try #require(FileManager.default.contents(atPath: fixture.databasePath + "-wal"))
        #expect(wal.count > 0)
        for bytes in [wal, try #require(FileManager.default.contents(atPath: fixture.databasePath))] {
            let text = String(decoding: bytes, as: UTF8.self)
            for secret in secrets { #expect(!text.contains(secret)) }
            // The passphrase and the master key never reach the disk either.
            #expect(!text.contains("unit passphrase"))
        }
        #expect(try store.session("a").secrets.privateKeyHex == secrets[4])
    }

    @Test func aNewerSchemaIsRefused() throws {
        try fixture.open().persist(StoreFixture.session("a"), replace: false)
        let raw = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
        try raw.execute("PRAGMA user_version = 99")
        raw.close()
        #expect(throws: StoreError.newerSchema(found: 99, known: StoreSchema.currentVersion)) {
            _ = try fixture.open()
        }
    }

    @Test func anOpenWithoutCreateOnAFreshFolderFindsNothing() throws {
        #expect(try SessionStore.open(fixture.location, options: fixture.options(), create: false) == nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.location.directory))
    }

    @Test func twoStoresHaveDifferentIDs() throws {
        let first = try fixture.open()
        let other = StoreFixture()
        let second = try other.open()
        #expect(first.storeID != second.storeID)
        #expect(first.storeID.count == 32)
        #expect(try fixture.open().storeID == first.storeID)
    }

    @Test func migratingToANewPassphraseRewrapsOnlyTheKey() throws {
        let store = try fixture.open()
        try store.persist(StoreFixture.session("a"), replace: false)
        func blobs() throws -> [[UInt8]] {
            let raw = try SQLiteDatabase(path: fixture.databasePath, busyTimeoutMilliseconds: 1000)
            let statement = try raw.prepare("SELECT secret FROM sessions ORDER BY key")
            var result: [[UInt8]] = []
            while try statement.step() { result.append(statement.blob(0) ?? []) }
            return result
        }
        let before = try blobs()
        let onlyNew = try fixture.open(passphrase: .fixed("new"))
        #expect(throws: StoreError.wrongPassphrase) { try onlyNew.migrateMasterKey(to: .passphrase) }
        // Unlock with the old passphrase, wrap under the new one: what the terminal's two questions give.
        let both = PassphraseUnlock(hint: "test") { purpose in
            Array((purpose == .unlock ? "unit passphrase" : "new").utf8)
        }
        try fixture.open(passphrase: both).migrateMasterKey(to: .passphrase)
        #expect(try blobs() == before)
        #expect(throws: StoreError.wrongPassphrase) { try fixture.open().session("a") }
        #expect(try fixture.open(passphrase: .fixed("new")).session("a").secrets.accessToken == "AT-a")
        #expect(try fixture.open().keySource() == .passphrase)
    }

    @Test func concurrentStoresInOneProcessLoseNothing() throws {
        _ = try fixture.open()
        let errors = WarningLog()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let store = try fixture.open()
                for index in 0..<25 { try store.persist(StoreFixture.session("w\(worker)-\(index)"), replace: false) }
            } catch {
                errors.append("\(error)")
            }
        }
        #expect(errors.all.isEmpty)
        #expect(try fixture.open().entries().count == 100)
    }
}
