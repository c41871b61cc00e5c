; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.StructuredBuffer<Sprite>" = type opaque
declare void @"Classify"()

declare void @"DrawSprites"()

declare void @"ShadeSprite"()

@"Sprites" = external constant %"class.StructuredBuffer<Sprite>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !18, !24, !31 }
!wgc.spirv.entryPoints = !{ !25, !26, !32 }
!wgc.experimental.tags = !{ !27, !28 }
!llvm.ident = !{ !29 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 16 }
!3 = !{ i32 0, %"class.StructuredBuffer<Sprite>"* @"Sprites", !"Sprites", i32 0, i32 0, i32 1, i32 12, i32 0, !2 }
!4 = !{ !3 }
!5 = !{ !4, null, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"Classify", i32 0 }
!8 = !{ i32 0, i32 8, i32 2, i32 4 }
!9 = !{ i32 1, i32 33, i32 2, !8 }
!10 = !{ !9 }
!11 = !{ i32 0, i32 5, i32 3 }
!12 = !{ i32 0, i32 24, i32 1, !11, i32 2, i32 4 }
!13 = !{ !"DrawSprites", i32 0 }
!14 = !{ i32 1, i32 6, i32 2, !12, i32 3, i32 1, i32 0, !13 }
!15 = !{ !14 }
!16 = !{ i32 1, i32 1, i32 1 }
!17 = !{ i32 8, i32 15, i32 13, i32 3, i32 14, i1 true, i32 15, !7, i32 16, i32 -1, i32 20, !10, i32 21, !15, i32 4, !16 }
!18 = !{ void ()* @"Classify", !"Classify", null, null, !17 }
!19 = !{ i32 1024, i32 1, i32 1 }
!20 = !{ i32 1, i32 97, i32 2, !12 }
!21 = !{ !20 }
!22 = !{ i32 32, i32 1, i32 1 }
!23 = !{ i32 8, i32 15, i32 13, i32 4, i32 15, !13, i32 16, i32 -1, i32 22, !19, i32 20, !21, i32 4, !22, i32 65536, i32 2, i32 65537, i32 128, i32 65538, i32 64 }
!24 = !{ void ()* @"DrawSprites", !"DrawSprites", null, null, !23 }
!25 = !{ void ()* @"Classify", !"Classify" }
!26 = !{ void ()* @"DrawSprites", !"DrawSprites" }
!27 = !{ !"NodeMaxLoopIterations", i32 131072 }
!28 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!29 = !{ !"wgc 0.1.0" }
!30 = !{ i32 8, i32 0 }
!31 = !{ void ()* @"ShadeSprite", !"ShadeSprite", null, null, !30 }
!32 = !{ void ()* @"ShadeSprite", !"ShadeSprite" }
