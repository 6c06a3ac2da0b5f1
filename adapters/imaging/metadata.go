package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"iter"

	"tandem/modules/images"
)

// The metadata readers below walk containers that came from strangers: every
// length is checked against what is left before it is used (FuzzOrientation).

const (
	markerSOS  = 0xDA
	markerEOI  = 0xD9
	markerAPP1 = 0xE1
	markerAPP2 = 0xE2

	tagOrientation = 0x0112
	typeShort      = 3
	typeLong       = 4

	// maxICC bounds the colour profile carried over: display profiles
	// (sRGB, Display P3) are a few KB; anything larger is dropped.
	maxICC = 256 << 10
)

var (
	exifHeader = []byte("Exif\x00\x00")
	iccHeader  = []byte("ICC_PROFILE\x00")
)

// jpegSegments yields the marker and payload of each segment before the
// first scan: where EXIF, XMP, ICC and comments live.
func jpegSegments(b []byte) iter.Seq2[byte, []byte] {
	return func(yield func(byte, []byte) bool) {
		if len(b) < 2 || b[0] != 0xFF || b[1] != 0xD8 {
			return
		}
		for i := 2; i+4 <= len(b); {
			if b[i] != 0xFF {
				return
			}
			m := b[i+1]
			switch {
			case m == 0xFF: // fill byte
				i++
				continue
			case m == markerSOS || m == markerEOI:
				return
			case m >= 0xD0 && m <= 0xD7 || m == 0x01: // no length
				i += 2
				continue
			}
			n := int(b[i+2])<<8 | int(b[i+3])
			if n < 2 || n > len(b)-i-2 {
				return
			}
			if !yield(m, b[i+4:i+2+n]) {
				return
			}
			i += 2 + n
		}
	}
}

// pngChunks yields the type and the whole chunk (length, type, data, CRC).
func pngChunks(b []byte) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		if len(b) < 8 || string(b[:8]) != "\x89PNG\r\n\x1a\n" {
			return
		}
		for i := 8; len(b)-i >= 12; {
			n := binary.BigEndian.Uint32(b[i:])
			if uint64(n) > uint64(len(b)-i-12) {
				return
			}
			end := i + 12 + int(n)
			typ := string(b[i+4 : i+8])
			if !yield(typ, b[i:end]) || typ == "IEND" {
				return
			}
			i = end
		}
	}
}

// pngData is a whole chunk's data.
func pngData(chunk []byte) []byte { return chunk[8 : len(chunk)-4] }

// riffChunks yields the FourCC and data of each chunk of a WEBP file.
func riffChunks(b []byte) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
			return
		}
		for i := 12; len(b)-i >= 8; {
			n := binary.LittleEndian.Uint32(b[i+4:])
			if uint64(n) > uint64(len(b)-i-8) {
				return
			}
			if !yield(string(b[i:i+4]), b[i+8:i+8+int(n)]) {
				return
			}
			i += 8 + int(n) + int(n&1) // chunks are padded to even sizes
		}
	}
}

// exifOf finds the TIFF block of the file's EXIF, nil when there is none.
func exifOf(data []byte, f images.Format) []byte {
	switch f {
	case images.JPEG:
		for m, p := range jpegSegments(data) {
			if m == markerAPP1 && bytes.HasPrefix(p, exifHeader) {
				return p[len(exifHeader):]
			}
		}
	case images.PNG:
		for typ, c := range pngChunks(data) {
			if typ == "eXIf" {
				return pngData(c)
			}
		}
	case images.WEBP:
		for id, p := range riffChunks(data) {
			if id == "EXIF" { // some writers keep the JPEG "Exif\0\0" prefix
				return bytes.TrimPrefix(p, exifHeader)
			}
		}
	}
	return nil
}

// orientation is the file's EXIF orientation, 1 (upright) when it has none.
func orientation(data []byte, f images.Format) int { return tiffOrientation(exifOf(data, f)) }

// tiffOrientation reads tag 0x0112 of IFD0 of a TIFF block, in either byte
// order; anything missing, malformed or out of range reads as 1.
func tiffOrientation(b []byte) int {
	if len(b) < 8 {
		return 1
	}
	var bo binary.ByteOrder
	switch string(b[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	if bo.Uint16(b[2:]) != 42 {
		return 1
	}
	size := uint64(len(b))
	ifd := uint64(bo.Uint32(b[4:]))
	if ifd > size-2 {
		return 1
	}
	n := uint64(bo.Uint16(b[ifd:]))
	for e := ifd + 2; e+12 <= size && n > 0; e, n = e+12, n-1 {
		if bo.Uint16(b[e:]) == tagOrientation {
			return orientationValue(bo, b[e:e+12])
		}
	}
	return 1
}

// orientationValue reads a 12-byte IFD entry; the value fits in the entry.
func orientationValue(bo binary.ByteOrder, e []byte) int {
	var v uint32
	switch bo.Uint16(e[2:]) {
	case typeShort:
		v = uint32(bo.Uint16(e[8:]))
	case typeLong:
		v = bo.Uint32(e[8:])
	default:
		return 1
	}
	if bo.Uint32(e[4:]) < 1 || v < 1 || v > 8 {
		return 1
	}
	return int(v)
}

// colorProfile returns the file's ICC profile as it is to be written back:
// the JPEG's APP2 segments (whole, with markers) or the PNG's iCCP chunk.
// Nil when there is none, or it is over maxICC.
func colorProfile(data []byte, f images.Format) []byte {
	var out []byte
	switch f {
	case images.JPEG:
		for m, p := range jpegSegments(data) {
			if m != markerAPP2 || !bytes.HasPrefix(p, iccHeader) || len(p) <= len(iccHeader)+2 {
				continue
			}
			if len(out)+4+len(p) > maxICC {
				return nil
			}
			out = append(out, 0xFF, markerAPP2, byte((len(p)+2)>>8), byte(len(p)+2))
			out = append(out, p...)
		}
	case images.PNG:
		for typ, c := range pngChunks(data) {
			if typ == "iCCP" {
				out = c // its CRC was checked by the decoder
				break
			}
		}
	}
	if len(out) > maxICC {
		return nil
	}
	return out
}

// spliceProfile encodes into buf with a colour profile from colorProfile
// spliced in, without copying the output again: it reserves room for the
// profile first, then moves the encoder's first hdr bytes (JPEG SOI; PNG
// signature and IHDR, since iCCP must precede PLTE and IDAT) to the front.
func spliceProfile(buf *bytes.Buffer, profile []byte, hdr int, encode func(io.Writer) error) ([]byte, error) {
	p := len(profile)
	buf.Write(make([]byte, p))
	if err := encode(buf); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if len(b) < p+hdr {
		return nil, errors.New("imaging: encoder wrote no header")
	}
	copy(b, b[p:p+hdr])
	copy(b[hdr:], profile)
	return b, nil
}
