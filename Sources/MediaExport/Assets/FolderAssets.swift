import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The assets of one folder, grouped from the files' names by Apple's conventions (and ours) only.
///
/// An asset is one media file plus the files that name it: its rendered edit (`IMG_E1234.MOV`, `clip_edited.mov`),
/// its adjustment record (`IMG_1234.AAE`, `IMG_O1234.AAE`), its JSON edit sidecar (`IMG_1234.edit.json`,
/// `IMG_1234.MOV.edit.json`) and, for a Live Photo, the HEIC/HEIF/JPEG still beside its MOV/MP4. Files that merely
/// share a base name (`demo.mp4`, `demo.mkv`, `demo.gif`) are separate assets. A name that could belong to several
/// assets is given to none of them, and each is told (`Asset.notes`):
/// - a rendered edit whose base has several originals pairs with the one of its own extension (case-insensitive);
///   with none, it is an asset of its own;
/// - a sidecar named by base alone (`demo.edit.json`, `demo.AAE`) beside several assets of that base is applied to
///   none (`demo.mp4.edit.json` names one).
struct FolderAssets {
    /// A file of the folder that heads no asset and belongs to none.
    struct Loose: Equatable {
        enum Why: Equatable {
            /// Obviously not media by its name (`.txt`).
            case notMedia
            /// A still image that is no Live Photo's.
            case stillImage
            /// A sidecar or `.AAE` whose asset is not in the folder, or that could be several assets'.
            case sidecar
        }
        var name: String
        var why: Why
        /// One line for people.
        var detail: String
    }

    var directory: String
    /// The assets, in the byte order of their main file's name.
    var assets: [Asset]
    var loose: [Loose]

    /// The asset `name` is a resource of, if any.
    func asset(containing name: String) -> Asset? {
        let path = PathName.join(directory, name)
        return assets.first { $0.resources.contains { $0.path == path } }
    }

    /// Groups `names` (files of `directory`, hidden ones already left out).
    static func group(directory: String, names: [String]) -> FolderAssets {
        var grouping = Grouping(directory: directory, names: names)
        grouping.pairRenderedEdits()
        grouping.indexBases()
        grouping.pairLivePhotoStills()
        grouping.attachSidecars()
        return grouping.folder()
    }

    /// One folder's names grouped step by step, by their index in byte order of the names: the heads (the files
    /// an asset is named after), then the rendered edits, Live Photo stills and sidecars joined to them.
    private struct Grouping {
        let directory: String
        let parsed: [ResourceName]
        var members: [Int: [(index: Int, kind: ResourceKind)]] = [:]  // head → the other resources of its asset
        var notes: [Int: [String]] = [:]  // head → what its asset tells
        var loose: [Loose] = []
        var heads: [Int] = []
        var originals: [String: [Int]] = [:]  // base key → originals by name (known media extensions)
        var ownerOfEdit: [Int: Int] = [:]  // rendered edit → its original
        var byBase: [String: [Int]] = [:]  // base key → the assets a base name can point at
        var paired = Set<Int>()  // movies a Live Photo still pairs with

        init(directory: String, names: [String]) {
            self.directory = directory
            parsed = names.sorted { FileName.bytes($0).lexicographicallyPrecedes(FileName.bytes($1)) }.map(ResourceName.init)
            for (i, p) in parsed.enumerated() {
                guard case .media(let known) = p.role else { continue }
                heads.append(i)
                if known { originals[p.key, default: []].append(i) }
            }
        }

        func list(_ indices: [Int]) -> String { indices.map { FileName.display(parsed[$0].name) }.joined(separator: ", ") }

        /// Rendered edits: with the one original of their base, else the one of their extension, else alone.
        mutating func pairRenderedEdits() {
            var editOf: [Int: Int] = [:]  // original → its rendered edit
            for (i, p) in parsed.enumerated() where p.role == .renderedEdit {
                let candidates = originals[p.key] ?? []
                var pick: Int?
                if candidates.count == 1 {
                    pick = candidates[0]
                } else if candidates.count > 1 {
                    let same = candidates.filter { parsed[$0].ext.lowercased() == p.ext.lowercased() }
                    pick = same.first { parsed[$0].ext == p.ext } ?? same.first
                    if pick == nil {
                        let text = "\(FileName.display(p.name)) is paired with no original: \(list(candidates)) share its base "
                            + "\(FileName.display(p.base)) and none has its extension .\(FileName.display(p.ext)); it is an asset of its own"
                        for x in [i] + candidates { notes[x, default: []].append(text) }
                    }
                }
                if let o = pick, let taken = editOf[o] {
                    let text = "\(FileName.display(p.name)) is paired with no original: \(FileName.display(parsed[o].name)) already has "
                        + "the rendered edit \(FileName.display(parsed[taken].name)); it is an asset of its own"
                    for x in [i, o] { notes[x, default: []].append(text) }
                    pick = nil
                }
                if let o = pick {
                    editOf[o] = i
                    ownerOfEdit[i] = o
                    members[o, default: []].append((i, .renderedEdit))
                } else {
                    heads.append(i)
                }
            }
            heads.sort()
        }

        /// Assets a base name can point at: originals by name, else rendered edits whose original is not here.
        mutating func indexBases() {
            for h in heads where parsed[h].role == .media(known: true) || parsed[h].role == .renderedEdit && originals[parsed[h].key] == nil {
                byBase[parsed[h].key, default: []].append(h)
            }
        }

        /// Live Photo stills: beside a MOV/MP4 of their base (an original before a rendered edit, .mov before .mp4).
        mutating func pairLivePhotoStills() {
            let parsed = self.parsed  // for the ranking closure, which cannot capture a mutating self
            for (i, p) in parsed.enumerated() {
                guard case .still(let livePhoto) = p.role else { continue }
                let movies = (byBase[p.key] ?? []).filter { parsed[$0].isLivePhotoMovie }.sorted { a, b in
                    let rank = { (x: Int) in (parsed[x].role == .renderedEdit ? 2 : 0) + (parsed[x].ext.lowercased() == "mov" ? 0 : 1) }
                    return (rank(a), a) < (rank(b), b)
                }
                guard livePhoto, let movie = movies.first else {
                    loose.append(Loose(name: p.name, why: .stillImage, detail: "a still image (\(p.ext.lowercased())), not video or audio"
                                       + (livePhoto ? "" : "; only a HEIC/HEIF/JPEG beside a MOV/MP4 is a Live Photo's still")))
                    continue
                }
                members[movie, default: []].append((i, .photo))
                if parsed[movie].role != .renderedEdit { paired.insert(movie) }
            }
        }

        /// Sidecars: the file they name in full, else the one asset of their base.
        mutating func attachSidecars() {
            var byName: [String: [Int]] = [:]  // case-folded name → heads and paired rendered edits
            for i in heads + ownerOfEdit.keys.sorted() { byName[parsed[i].name.lowercased(), default: []].append(i) }
            for (i, p) in parsed.enumerated() {
                let kind: ResourceKind
                var owner: Int?
                switch p.role {
                case .editSidecar(let target):
                    kind = .editSidecar
                    let named = (byName[target.lowercased()] ?? []).sorted()
                    if let n = named.first(where: { parsed[$0].name == target }) ?? named.first { owner = ownerOfEdit[n] ?? n }
                case .adjustmentData:
                    kind = .adjustmentData
                default:
                    continue
                }
                if let owner = owner ?? ownerByBase(of: p, kind: kind) { members[owner, default: []].append((i, kind)) }
            }
        }

        /// The one asset of the sidecar's base; with none or several, the sidecar is loose (and the several are told).
        mutating func ownerByBase(of p: ResourceName, kind: ResourceKind) -> Int? {
            let candidates = byBase[p.key] ?? []
            if candidates.count == 1 { return candidates[0] }
            if candidates.isEmpty {
                loose.append(Loose(name: p.name, why: .sidecar, detail: "a sidecar of no asset: nothing here is named \(FileName.display(p.base))"))
                return nil
            }
            let fix = kind == .editSidecar ? " (name it \(FileName.display(parsed[candidates[0]].name)).edit.json to say which)" : ""
            let why = "\(list(candidates)) share its base \(FileName.display(p.base)), so it could be any of theirs\(fix)"
            loose.append(Loose(name: p.name, why: .sidecar, detail: "a sidecar of no asset: " + why))
            for c in candidates { notes[c, default: []].append("\(FileName.display(p.name)) is applied to no asset: " + why) }
            return nil
        }

        /// The assets, each head with its members in the order of `ResourceKind`, and the loose files.
        func folder() -> FolderAssets {
            var loose = self.loose
            for p in parsed where p.role == .notMedia {
                loose.append(Loose(name: p.name, why: .notMedia, detail: "not media (a .\(p.ext.lowercased()) file)"))
            }
            let order = ResourceKind.allCases
            let assets = heads.map { h -> Asset in
                let kind: ResourceKind = parsed[h].role == .renderedEdit ? .renderedEdit : paired.contains(h) ? .pairedVideo : .original
                let all = [(index: h, kind: kind)] + (members[h] ?? []).sorted { a, b in
                    (order.firstIndex(of: a.kind)!, a.index) < (order.firstIndex(of: b.kind)!, b.index)  // order: every kind
                }
                return Asset(baseName: parsed[h].base, directory: directory,
                             resources: all.map { Asset.resource($0.kind, PathName.join(directory, parsed[$0.index].name)) }, notes: notes[h] ?? [])
            }
            return FolderAssets(directory: directory, assets: assets, loose: loose)
        }
    }

    /// The names in `directory` that can be resources: regular files, or links to them, that are not hidden. A
    /// subfolder or a FIFO named like a movie takes no part in grouping; one named like a sidecar does (see
    /// `ResourceName.isSidecar`), so that its asset's current version fails naming it instead of having "no edits".
    static func listing(of directory: String) -> [String] {
        (FileSystem.contents(ofDirectory: directory) ?? []).filter { name in
            !name.hasPrefix(".") && (FileSystem.isRegularFile(PathName.join(directory, name)) || ResourceName(name).isSidecar)
        }
    }

    /// The assets of `directory` that hold one of `names`, grouped from the whole folder (a file's rendered edit
    /// or sidecar need not be among `names`), and the loose files among `names`.
    static func of(_ names: [String], in directory: String) -> FolderAssets {
        var all = listing(of: directory)
        let listed = Set(all), wanted = Set(names)
        all += wanted.subtracting(listed).sorted()  // a hidden file given by name is still itself
        var folder = group(directory: directory, names: all)
        let paths = Set(names.map { PathName.join(directory, $0) })
        folder.assets = folder.assets.filter { $0.resources.contains { paths.contains($0.path) } }
        folder.loose = folder.loose.filter { wanted.contains($0.name) }
        return folder
    }
}
