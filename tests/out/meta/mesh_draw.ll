; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.StructuredBuffer<Sprite>" = type opaque

@Sprites = external constant %"class.StructuredBuffer<Sprite>"

declare void @Classify()

declare void @DrawSprites()

declare void @ShadeSprite()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !21, !27}
!wgc.spirv.entryPoints = !{!29, !30, !31}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{!4, null, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.StructuredBuffer<Sprite>"* @Sprites, !"Sprites", i32 0, i32 0, i32 1, i32 12, i32 0, !6}
!6 = !{i32 1, i32 16}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @Classify, !"Classify", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !10, i32 16, i32 -1, i32 20, !11, i32 21, !14, i32 4, !19, i32 5, !20}
!10 = !{!"Classify", i32 0}
!11 = !{!12}
!12 = !{i32 1, i32 33, i32 2, !13}
!13 = !{i32 0, i32 8, i32 2, i32 4}
!14 = !{!15}
!15 = !{i32 1, i32 6, i32 2, !16, i32 3, i32 1, i32 0, !18}
!16 = !{i32 0, i32 24, i32 1, !17, i32 2, i32 4}
!17 = !{i32 0, i32 5, i32 3}
!18 = !{!"DrawSprites", i32 0}
!19 = !{i32 1, i32 1, i32 1}
!20 = !{i32 0}
!21 = !{void ()* @DrawSprites, !"DrawSprites", null, null, !22}
!22 = !{i32 8, i32 15, i32 13, i32 4, i32 15, !18, i32 16, i32 -1, i32 22, !23, i32 20, !24, i32 4, !26, i32 65536, i32 2, i32 65537, i32 128, i32 65538, i32 64, i32 5, !20}
!23 = !{i32 1024, i32 1, i32 1}
!24 = !{!25}
!25 = !{i32 1, i32 97, i32 2, !16}
!26 = !{i32 32, i32 1, i32 1}
!27 = !{void ()* @ShadeSprite, !"ShadeSprite", null, null, !28}
!28 = !{i32 8, i32 0, i32 5, !20}
!29 = !{void ()* @Classify, !"Classify"}
!30 = !{void ()* @DrawSprites, !"DrawSprites"}
!31 = !{void ()* @ShadeSprite, !"ShadeSprite"}
